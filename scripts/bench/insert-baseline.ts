// The write benches' baseline (bench:writes, bench:chat): `connections` loops, each a
// one-row INSERT transaction at a time straight to Postgres through the app's driver,
// into a table of its own in the bench's database — what this machine's Postgres
// commits at that concurrency, the floor under any write the app makes.
import { sql } from '../../src/lib/db'
import { benchLog, type Row } from './harness'

/** WARM seconds unmeasured, then `seconds` measured; the row of the measured part. */
export async function insertBaseline(
	connections: number,
	seconds: number,
	warmSeconds: number,
): Promise<Row> {
	await sql`create table if not exists bench_rows (id bigserial primary key, body text, created_at bigint)`
	if (warmSeconds > 0) await insertFor(connections, warmSeconds, [])
	const latencies: number[] = []
	await insertFor(connections, seconds, latencies)
	latencies.sort((a, b) => a - b)
	const pct = (p: number) => Math.round(latencies[Math.floor(latencies.length * p)] ?? 0)
	const row = {
		name: `baseline: one-row INSERT tx, ${connections} conn`,
		rps: Math.round(latencies.length / seconds),
		p50: pct(0.5),
		p99: pct(0.99),
		errors: 0,
	}
	benchLog(`${row.name}: ${row.rps}/s p50 ${row.p50} ms p99 ${row.p99} ms`)
	return row
}

function insertFor(connections: number, seconds: number, latencies: number[]) {
	const until = performance.now() + seconds * 1000
	return Promise.all(
		Array.from({ length: connections }, async () => {
			while (performance.now() < until) {
				const t0 = performance.now()
				await sql.begin(
					(tx) => tx`insert into bench_rows (body, created_at) values ('x', ${Date.now()})`,
				)
				latencies.push(performance.now() - t0)
			}
		}),
	)
}
