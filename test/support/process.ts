// Runs plaza as a real process (`bun src/index.ts`), the way `npm start` does, and
// waits until it listens. Used for what app.handle() cannot show: start-up, readiness
// against a dead Redis, and shutdown on SIGTERM.
import { join } from 'node:path'

export const root = join(import.meta.dir, '../..')

export interface Started {
	port: number
	proc: ReturnType<typeof Bun.spawn>
	stdout: string[]
	stop(): Promise<number>
}

/** Reads stdout line by line into `lines`; resolves when a line matches `until`. */
async function readUntil(
	stream: ReadableStream<Uint8Array>,
	lines: string[],
	until: (line: string) => boolean,
) {
	const decoder = new TextDecoder()
	let buffer = ''
	let found: string | null = null
	const reader = stream.getReader()
	const pump = async (): Promise<void> => {
		for (;;) {
			const { done, value } = await reader.read()
			if (done) return
			buffer += decoder.decode(value, { stream: true })
			let newline = buffer.indexOf('\n')
			while (newline >= 0) {
				const line = buffer.slice(0, newline)
				buffer = buffer.slice(newline + 1)
				lines.push(line)
				if (found === null && until(line)) found = line
				newline = buffer.indexOf('\n')
			}
		}
	}
	const pumping = pump()
	for (let waited = 0; waited < 15_000 && found === null; waited += 25) {
		await Promise.race([pumping, Bun.sleep(25)])
	}
	return found
}

export async function startServer(env: Record<string, string>): Promise<Started> {
	const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
		cwd: root,
		env: { ...process.env, ROLE: 'api', PORT: '0', LOG_LEVEL: 'info', ...env },
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const stdout: string[] = []
	const listening = await readUntil(proc.stdout as ReadableStream<Uint8Array>, stdout, (line) =>
		line.includes('"api listening"'),
	)
	if (!listening) {
		proc.kill()
		throw new Error(
			`server did not start:\n${stdout.join('\n')}\n${await new Response(proc.stderr as ReadableStream).text()}`,
		)
	}
	return {
		port: JSON.parse(listening).port,
		proc,
		stdout,
		async stop() {
			proc.kill('SIGTERM')
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
