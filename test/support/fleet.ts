// Several plaza processes at once, as an operator runs them: each `bun src/index.ts`
// with its own ROLE, PORT=0 and (for workers) METRICS_PORT=0, its JSON log kept line by
// line so a test can read the ports it picked and look for errors afterwards.
import { root } from './process'

export interface PlazaProcess {
	name: string
	role: 'api' | 'worker'
	/** the api port, or the worker's METRICS_PORT listener */
	port: number
	lines: string[]
	proc: ReturnType<typeof Bun.spawn>
	/** false once the process has exited (by a kill or otherwise) */
	alive(): boolean
	kill(signal?: 'SIGKILL' | 'SIGTERM'): Promise<number>
}

/** Pumps a stream into `lines`; resolves `seen` with the first line matching `until`. */
function pump(
	stream: ReadableStream<Uint8Array>,
	lines: string[],
	until: (line: string) => boolean,
) {
	const decoder = new TextDecoder()
	let buffer = ''
	let resolveSeen: (line: string | null) => void = () => {}
	const seen = new Promise<string | null>((resolve) => {
		resolveSeen = resolve
	})
	void (async () => {
		for await (const chunk of stream) {
			buffer += decoder.decode(chunk, { stream: true })
			let newline = buffer.indexOf('\n')
			while (newline >= 0) {
				const line = buffer.slice(0, newline)
				buffer = buffer.slice(newline + 1)
				lines.push(line)
				if (until(line)) resolveSeen(line)
				newline = buffer.indexOf('\n')
			}
		}
		resolveSeen(null)
	})()
	return seen
}

/** Starts one process and waits until it listens (api) or serves its metrics port (worker). */
export async function spawnPlaza(
	name: string,
	role: 'api' | 'worker',
	env: Record<string, string>,
): Promise<PlazaProcess> {
	const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
		cwd: root,
		env: {
			...process.env,
			LOG_LEVEL: 'info',
			...env,
			ROLE: role,
			PORT: '0',
			...(role === 'worker' ? { METRICS_PORT: '0' } : {}),
		},
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const lines: string[] = []
	const marker = role === 'api' ? '"api listening"' : '"metrics listening"'
	const started = pump(proc.stdout as ReadableStream<Uint8Array>, lines, (l) => l.includes(marker))
	void pump(proc.stderr as ReadableStream<Uint8Array>, lines, () => false)
	const line = await Promise.race([started, Bun.sleep(60_000).then(() => null)])
	if (!line) {
		proc.kill('SIGKILL')
		throw new Error(`${name} did not start:\n${lines.slice(-40).join('\n')}`)
	}
	return {
		name,
		role,
		port: JSON.parse(line).port,
		lines,
		proc,
		alive: () => proc.exitCode === null && proc.signalCode === null,
		async kill(signal = 'SIGTERM') {
			proc.kill(signal)
			return proc.exited
		},
	}
}

/** Log lines at level error (50) or above, and any line naming a cross-slot failure. */
export function troubleIn(processes: PlazaProcess[]): { errors: string[]; crossSlot: string[] } {
	const all = processes.flatMap((p) => p.lines.map((line) => `${p.name}: ${line}`))
	return {
		errors: all.filter((line) => /"level":(50|60)/.test(line)),
		crossSlot: all.filter((line) => /CROSSSLOT|same slot|slots allocation group/i.test(line)),
	}
}
