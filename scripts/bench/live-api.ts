// An api process for the live benchmark: plaza's own entry, plus SIGUSR2 = a full
// synchronous garbage collection, so the idle row reads RSS after the heap settled.
process.on('SIGUSR2', () => {
	Bun.gc(true)
})
await import('../../src/index')

export {}
