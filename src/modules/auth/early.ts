// First reads a route starts before its handler (by the auth check, as soon as the token
// verified: plugin.ts EarlyRead), labelled with what they read; the handler takes one
// only for the same label, so a hot page costs one round trip with the token's checks.
const earlyReads = new WeakMap<Request, { label: string; read: Promise<unknown> }>()

export function keepEarly(request: Request, label: string, read: Promise<unknown>): void {
	// Observed now: a refused token never takes it, and its error must not go unhandled.
	read.catch(() => {})
	earlyReads.set(request, { label, read })
}

export function takeEarly<T>(request: Request, label: string): Promise<T> | undefined {
	const early = earlyReads.get(request)
	return early?.label === label ? (early.read as Promise<T>) : undefined
}
