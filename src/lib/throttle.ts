// Throttling per key: at most one run of a key per window. The first call runs at once;
// calls that arrive within the window are folded (`merge`) into ONE run at its end, which
// opens the next window; a window that ends with nothing owed forgets its key. So the
// last change of a burst is always told, and a key costs one run per window however
// often it is called. Used for live announcements whose cost must not follow the write
// rate (a room's unread counts, a community's `stats` hint). `run` must not throw.
export function throttlePerKey<A>(options: {
	windowMs: number
	run: (arg: A) => Promise<unknown> | undefined
	/** What the owed run gets when another call arrives in the window (default: the newer). */
	merge?: (owed: A, next: A) => A
}): (key: string, arg: A) => Promise<void> {
	const merge = options.merge ?? ((_owed: A, next: A) => next)
	const windows = new Map<string, { owed: A | undefined }>()
	const closeLater = (key: string, window: { owed: A | undefined }) =>
		setTimeout(() => {
			const owed = window.owed
			if (owed === undefined) return void windows.delete(key)
			window.owed = undefined
			void Promise.resolve(options.run(owed)).finally(() => closeLater(key, window))
		}, options.windowMs).unref()
	return async (key, arg) => {
		const open = windows.get(key)
		if (open) {
			open.owed = open.owed === undefined ? arg : merge(open.owed, arg)
			return
		}
		const window: { owed: A | undefined } = { owed: undefined }
		windows.set(key, window)
		try {
			await options.run(arg)
		} finally {
			closeLater(key, window)
		}
	}
}
