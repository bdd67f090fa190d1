// Files imported `with { type: 'file' }` are embedded by `bun build --compile`; the import yields their path.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
declare module '*.svg' {
  const path: string
  export default path
}
declare module '*.ico' {
  const path: string
  export default path
}
