// A worker loop: runs `pass` again at once while it finds work, and sleeps `idleMs`
// when it finds none or fails (the error goes to `onError`, and the loop goes on).
// `wake()` ends every loop's sleep early (a NOTIFY said work is waiting), and a wake that
// comes during a pass runs another pass at once (the work it announced may have come
// after the pass looked), so a pass may stop at a short claim instead of claiming again
// to be sure; `stop()` lets
// each loop finish the pass it is in, wakes it if asleep, and resolves once all have
// ended. With `loops` > 1, that many loops run side by side, each sleeping on its own.
//
// The fan-out consumer (timelines/fanout.ts), the recompute queue
// (timelines/recompute.ts) and the import runner (import/runner.ts) run on it.

export interface WorkerLoop {
	/** Ends the loops' sleep now. */
	wake(): void
	/** Resolves when every loop has finished its pass and ended. */
	stop(): Promise<void>
}

export function startWorkerLoop(options: {
	/** One pass; true when it found work (run again at once), false to sleep. */
	pass: (stopping: () => boolean) => Promise<boolean>
	/** Called with what a pass threw, and whether the loop is stopping. */
	onError: (error: unknown, stopping: boolean) => void
	idleMs: number
	loops?: number
}): WorkerLoop {
	let running = true
	let woken = false
	const stopping = () => !running
	const sleepers = new Set<() => void>()
	const wake = () => {
		woken = true
		for (const sleeper of sleepers) sleeper()
	}
	const sleep = () =>
		new Promise<void>((resolve) => {
			const done = () => {
				clearTimeout(timer)
				sleepers.delete(done)
				resolve()
			}
			const timer = setTimeout(done, options.idleMs)
			sleepers.add(done)
		})
	const loop = async () => {
		while (running) {
			woken = false
			try {
				if (await options.pass(stopping)) continue
			} catch (error) {
				options.onError(error, stopping())
			}
			if (!running) break
			if (!woken) await sleep()
		}
	}
	const loops = Array.from({ length: options.loops ?? 1 }, loop)
	return {
		wake,
		async stop() {
			running = false
			wake()
			await Promise.all(loops)
		},
	}
}
