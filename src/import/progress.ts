// Progress of an import on stderr: a bar with records/s and ETA on a terminal
// (cli-progress), otherwise one JSON line every 2 s — `{"done", "total"?, "rate",
// "rejects"}` (total and ETA from the bytes read when the input's size is known).
import { Presets, SingleBar } from 'cli-progress'
import type { ReadProgress } from './run'

const JSON_EVERY_MS = 2000

export interface ProgressDisplay {
	records(progress: ReadProgress): void
	bytes(read: number): void
	phase(name: string): void
	stop(): void
}

export function progressDisplay(totalBytes: number | null, tty: boolean): ProgressDisplay {
	const started = performance.now()
	let state = { done: 0, rejects: 0, bytes: 0, phase: 'read' }
	const rate = () => Math.round(state.done / Math.max((performance.now() - started) / 1000, 0.001))
	if (tty) {
		const bar = new SingleBar(
			{
				format:
					'{phase} [{bar}] {percentage}% | {done} records | {rate} records/s | {rejects} rejects | ETA {eta_formatted}',
				etaBuffer: 50,
			},
			Presets.shades_classic,
		)
		bar.start(totalBytes ?? 1, 0, { ...state, rate: 0 })
		const show = () => bar.update(totalBytes ? state.bytes : 0, { ...state, rate: rate() })
		return {
			records: (p) => {
				state = { ...state, ...p }
				show()
			},
			bytes: (read) => {
				state.bytes = read
			},
			phase: (name) => {
				state.phase = name
				show()
			},
			stop: () => bar.stop(),
		}
	}
	const timer = setInterval(() => {
		const line: Record<string, unknown> = { done: state.done, rate: rate(), rejects: state.rejects }
		if (totalBytes) line.total = Math.round(state.done * (totalBytes / Math.max(state.bytes, 1)))
		line.phase = state.phase
		process.stderr.write(`${JSON.stringify(line)}\n`)
	}, JSON_EVERY_MS)
	return {
		records: (p) => {
			state = { ...state, ...p }
		},
		bytes: (read) => {
			state.bytes = read
		},
		phase: (name) => {
			state.phase = name
		},
		stop: () => clearInterval(timer),
	}
}
