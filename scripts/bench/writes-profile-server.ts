// bench:writes' server for scripts/bench/writes-profile.ts: exits on SIGTERM, so that
// `bun --cpu-prof` writes its profile.
export {}

process.on('SIGTERM', () => process.exit(0))
await import('./writes-server')
