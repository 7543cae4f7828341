// Push sources: outboxes whose rows become push deliveries once expanded (a chat
// message's notice names its room; the worker resolves who hears of it). A module
// registers its source (push never imports modules); every push engine runs each
// registered source as a worker loop woken by its NOTIFY, sent at the writer's commit,
// and polling every second for what a lost notification or a failure left.
import { sql } from '../lib/db'
import { log } from '../lib/log'
import { startWorkerLoop } from '../lib/worker-loop'

export interface PushSource {
	/** for log lines: 'chat notices' */
	name: string
	/** the NOTIFY channel its writers' statements notify at commit */
	channel: string
	/** one pass: true when it found work (run again at once) */
	drain: () => Promise<boolean>
}

const sources = new Map<string, PushSource>()

/** Registers `source` (once per name) with every push engine started from now on. */
export function addPushSource(source: PushSource): void {
	sources.set(source.name, source)
}

/** Runs every registered source; the returned function stops them after their pass. */
export function startPushSources(idleMs = 1000): () => Promise<void> {
	const stops = [...sources.values()].map((source) => {
		const loop = startWorkerLoop({
			pass: source.drain,
			onError: (error) => log.error({ err: error }, `${source.name} failed`),
			idleMs,
		})
		const listening = sql
			.listen(source.channel, () => loop.wake())
			.catch((error) => {
				log.error({ err: error }, `${source.name} could not listen; polling only`)
				return null
			})
		return async () => {
			await loop.stop()
			await (await listening)?.unlisten().catch(() => {})
		}
	})
	return async () => {
		await Promise.all(stops.map((stop) => stop()))
	}
}
