// Whether an address, or a request, is local to this machine. The demo project's guard:
// it is created only for a loopback listener, and its owner's fixed OTP answers only
// to loopback callers (modules/projects/demo.ts, modules/sessions/otp).
import ipaddr from 'ipaddr.js'

export function isLoopbackAddress(address: string): boolean {
	const bare = address.trim().replace(/^\[(.*)\]$/, '$1')
	if (bare.toLowerCase() === 'localhost') return true
	if (!ipaddr.isValid(bare)) return false
	const parsed = ipaddr.process(bare) // ::ffff:127.0.0.1 is judged as 127.0.0.1
	return parsed.range() === 'loopback'
}

type RequestIpServer = { requestIP(request: Request): { address: string } | null } | null

/** Every address the forwarding headers name (a proxy on this machine passes them on). */
function forwardedAddresses(headers: Headers): string[] {
	const listed = [headers.get('x-forwarded-for'), headers.get('x-real-ip')]
		.flatMap((value) => (value ? value.split(',') : []))
		.map((entry) => entry.trim())
	const forwarded = [...(headers.get('forwarded') ?? '').matchAll(/for="?([^";,]+)"?/gi)].map(
		(match) => (match[1] as string).replace(/:\d+$/, '').replace(/^\[(.*)\].*$/, '$1'),
	)
	return [...listed, ...forwarded].filter(Boolean)
}

/**
 * A request is from loopback when its socket is and every forwarding header names
 * loopback too: a reverse proxy on this machine passing on a remote caller connects from
 * 127.0.0.1, and TRUST_PROXY_HOPS is not needed for this stricter reading. A request
 * that never went through a socket (app.handle in tests) is not.
 */
export function isLoopbackRequest(request: Request, server: RequestIpServer): boolean {
	const socket = server?.requestIP(request)?.address
	if (!socket || !isLoopbackAddress(socket)) return false
	return forwardedAddresses(request.headers).every(isLoopbackAddress)
}
