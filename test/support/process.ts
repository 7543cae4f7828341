// Runs plaza as a real process (`bun src/index.ts`), the way `npm start` does, for what
// app.handle() cannot show: start-up, readiness against a dead Redis, shutdown on
// SIGTERM, worker crashes, several processes at once. Its stdout is kept line by line
// so a test can wait for a log line; stderr is kept for errors.
import { join } from 'node:path'
import { waitFor } from './wait'

export const root = join(import.meta.dir, '../..')

export interface Plaza {
	proc: ReturnType<typeof Bun.spawn>
	/** the HTTP port when it runs the api (ROLE api or all), a worker's METRICS_PORT listener, else 0 */
	port: number
	/** stdout so far, one log line each */
	stdout: string[]
	stderr: string[]
	/** false once the process has exited (by a kill or otherwise) */
	alive(): boolean
	/** resolves with the first stdout line that matches (already printed or still to come) */
	waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>
	/** sends the signal (SIGTERM unless given) and resolves with the exit code */
	stop(signal?: NodeJS.Signals): Promise<number>
}

/** Splits a stream into lines as they arrive; the promise ends with the stream. */
async function collectLines(stream: ReadableStream<Uint8Array>, lines: string[]): Promise<void> {
	const decoder = new TextDecoder()
	let buffer = ''
	for await (const chunk of stream) {
		buffer += decoder.decode(chunk, { stream: true })
		const parts = buffer.split('\n')
		buffer = parts.pop() ?? ''
		lines.push(...parts)
	}
	if (buffer) lines.push(buffer)
}

/**
 * Starts `bun src/index.ts` (or `entry`, a script that imports it) with ROLE=`role` and
 * resolves once it logs that it listens (api, all; a worker given METRICS_PORT: its
 * metrics port) or that its workers started.
 */
export async function spawnPlaza(
	role: 'api' | 'worker' | 'all',
	env: Record<string, string> = {},
	{ startTimeoutMs = 15_000, entry = 'src/index.ts' } = {},
): Promise<Plaza> {
	const inherited: Record<string, string | undefined> = { ...process.env }
	// A process given its own database must not read the suite's through the replica.
	if (env.DATABASE_URL && !env.DATABASE_REPLICA_URL) delete inherited.DATABASE_REPLICA_URL
	const proc = Bun.spawn([process.execPath, entry], {
		cwd: root,
		env: { ...inherited, ROLE: role, PORT: '0', LOG_LEVEL: 'info', ...env },
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const stdout: string[] = []
	const stderr: string[] = []
	let ended = false
	const reading = Promise.all([
		collectLines(proc.stdout as ReadableStream<Uint8Array>, stdout),
		collectLines(proc.stderr as ReadableStream<Uint8Array>, stderr),
	]).finally(() => {
		ended = true
	})
	void reading
	const waitForLine = (match: (line: string) => boolean, timeoutMs = 15_000) =>
		waitFor(
			() => {
				const line = stdout.find(match)
				if (!line && ended)
					throw new Error(`plaza exited:\n${stdout.join('\n')}\n${stderr.join('\n')}`)
				return line
			},
			{ what: 'a log line of plaza', timeoutMs, everyMs: 10 },
		)
	const servesMetrics = role === 'worker' && env.METRICS_PORT !== undefined
	const readyMessage =
		role !== 'worker'
			? '"api listening"'
			: servesMetrics
				? '"metrics listening"'
				: '"worker started"'
	let ready: string
	try {
		ready = await waitForLine((line) => line.includes(readyMessage), startTimeoutMs)
	} catch (error) {
		proc.kill('SIGKILL')
		await proc.exited
		throw new Error(
			`plaza did not start (${(error as Error).message}):\n${stdout.join('\n')}\n${stderr.join('\n')}`,
		)
	}
	return {
		proc,
		port: role === 'worker' && !servesMetrics ? 0 : JSON.parse(ready).port,
		stdout,
		stderr,
		alive: () => proc.exitCode === null && proc.signalCode === null,
		waitForLine,
		async stop(signal: NodeJS.Signals = 'SIGTERM') {
			proc.kill(signal)
			return proc.exited
		},
	}
}

export async function runScript(args: string[], env: Record<string, string> = {}) {
	const proc = Bun.spawn([process.execPath, ...args], {
		cwd: root,
		env: { ...process.env, ...env },
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout as ReadableStream).text(),
		new Response(proc.stderr as ReadableStream).text(),
		proc.exited,
	])
	return { stdout, stderr, code }
}
