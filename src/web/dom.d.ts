// The console runs in a browser: DOM types for src/web. (tsconfig's lib is ESNext only, for the server; these add to it.)
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="dom.asynciterable" />
