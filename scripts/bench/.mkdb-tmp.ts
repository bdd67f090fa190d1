import pg from 'pg'
const c = new pg.Client('postgres://postgres@127.0.0.1:55630/postgres'); await c.connect()
for (const name of process.argv.slice(2)) { await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`); await c.query(`CREATE DATABASE ${name}`) }
await c.end()
