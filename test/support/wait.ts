// The one way tests wait for something that happens after a reply (a worker, a
// receiver, a log line): poll a probe until it gives a truthy value, or fail naming it.
// There is no upper bound on how fast it happens, only a generous deadline.

export interface WaitOptions {
	/** What is awaited, for the error message. */
	what?: string
	timeoutMs?: number
	everyMs?: number
}

type Truthy<T> = Exclude<T, null | undefined | false | 0 | ''>

export async function waitFor<T>(
	probe: () => T | Promise<T>,
	{ what = 'condition', timeoutMs = 10_000, everyMs = 20 }: WaitOptions = {},
): Promise<Truthy<T>> {
	const deadline = Date.now() + timeoutMs
	for (;;) {
		const value = await probe()
		if (value) return value as Truthy<T>
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
		await Bun.sleep(everyMs)
	}
}
