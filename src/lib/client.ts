// Client headers, parsed once per request. Clients older than MIN_VERSION_CODES for
// their platform are answered 426 before any handler runs.
import { config } from '../config'
import { AppError } from './errors'

export interface ClientInfo {
	platformCode: string | null
	versionCode: number | null
	sdkSource: 'chat' | 'feed' | null
	platformType: string | null
}

export function readClientInfo(headers: Headers): ClientInfo {
	const version = headers.get('x-version-code')
	const source = headers.get('x-sdk-source')
	return {
		platformCode: headers.get('x-platform-code')?.toLowerCase() ?? null,
		versionCode: version !== null && /^\d+$/.test(version.trim()) ? Number(version) : null,
		sdkSource: source === 'chat' || source === 'feed' ? source : null,
		platformType: headers.get('x-platform-type'),
	}
}

export function assertSupportedVersion(client: ClientInfo): void {
	if (!client.platformCode || client.versionCode === null) return
	const minimum = config.minVersionCodes.get(client.platformCode)
	if (minimum !== undefined && client.versionCode < minimum) {
		throw new AppError(426, 'Please update the app')
	}
}

type RequestIpServer = { requestIP(request: Request): { address: string } | null } | null

/** The caller's address: the first x-forwarded-for hop (set by the load balancer), else the socket. */
export function clientIp(request: Request, server: RequestIpServer): string {
	return request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() || server?.requestIP(request)?.address || 'local'
}
