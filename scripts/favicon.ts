// Makes src/web/favicon.ico from src/web/favicon.svg: Chromium draws the SVG at 16, 32 and 48 px, and the PNGs are
// packed into one ICO (PNG entries, as every browser since Windows Vista reads them). Run after changing the SVG:
//   npx bun scripts/favicon.ts
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

const WEB = join(import.meta.dir, '..', 'src', 'web')
const SIZES = [16, 32, 48]

const svg = readFileSync(join(WEB, 'favicon.svg'), 'utf8')
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
const pngs: Buffer[] = []
try {
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size } })
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`)
    pngs.push(await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }))
    await page.close()
  }
} finally {
  await browser.close()
}

// ICONDIR (6 bytes), one ICONDIRENTRY (16 bytes) per image, then the images.
const header = Buffer.alloc(6 + 16 * pngs.length)
header.writeUInt16LE(0, 0)
header.writeUInt16LE(1, 2)
header.writeUInt16LE(pngs.length, 4)
let offset = header.length
pngs.forEach((png, i) => {
  const entry = 6 + 16 * i
  header.writeUInt8(SIZES[i]! % 256, entry)
  header.writeUInt8(SIZES[i]! % 256, entry + 1)
  header.writeUInt16LE(1, entry + 4) // colour planes
  header.writeUInt16LE(32, entry + 6) // bits per pixel
  header.writeUInt32LE(png.length, entry + 8)
  header.writeUInt32LE(offset, entry + 12)
  offset += png.length
})
writeFileSync(join(WEB, 'favicon.ico'), Buffer.concat([header, ...pngs]))
console.log(`wrote src/web/favicon.ico (${SIZES.join(', ')} px, ${offset} bytes)`)
