// Live-update benchmark: one row per target of live delivery (docs/live.md
// "Benchmark"), each row a script of its own (live-<row>.ts) run in a child process, so
// each starts its api processes, clients and (for `cluster`) Redis Cluster afresh.
//   npm run bench:live                                  every row at full scale
//   BENCH_ROWS=latency,kill BENCH_CLIENTS=2000 npm run bench:live   some rows, smaller
// Its own database (BENCH_DATABASE_URL, default plaza_bench_live) and Redis db
// (BENCH_REDIS_URL, default db 13); every row's settings are in its file's header.

export {}

const ROWS = ['latency', 'idle', 'deliveries', 'kill', 'cluster', 'badge']
const chosen = (process.env.BENCH_ROWS ?? ROWS.join(',')).split(',').filter(Boolean)
const unknown = chosen.filter((r) => !ROWS.includes(r))
if (unknown.length > 0) {
	console.error(`unknown rows: ${unknown.join(', ')} (rows: ${ROWS.join(', ')})`)
	process.exit(2)
}

/** The open-files hard limit: a process may hold at most that many sockets. */
const fileLimit = async () =>
	/Max open files\s+\d+\s+(\d+)/.exec(await Bun.file('/proc/self/limits').text())?.[1]
const load = async () => (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
console.log(
	`machine: ${navigator.hardwareConcurrency} cores, open files ${await fileLimit()} per process, load average ${await load()} at start`,
)
const lines: string[] = []
for (const name of chosen) {
	console.error(`[bench] row ${name}`)
	const started = performance.now()
	const child = Bun.spawn([process.execPath, `scripts/bench/live-${name}.ts`], {
		env: { ...process.env },
		stdout: 'pipe',
		stderr: 'inherit',
	})
	const out = await new Response(child.stdout).text()
	const code = await child.exited
	const rows = out.split('\n').filter((l) => l.startsWith('| '))
	lines.push(...rows)
	if (code !== 0 || rows.length === 0) lines.push(`| ${name} | | failed (exit ${code}) | **no** |`)
	console.error(`[bench] row ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s`)
	console.error(rows.join('\n'))
}
console.log('| case | target | measured | met |')
console.log('|---|---|---|---|')
for (const line of lines) console.log(line)
console.log(`load average ${await load()} at the end`)
