// Domain errors: services throw these; the one onError in app.ts turns them into
// the envelope `{success:false, error_message}` with the status they carry.
export class AppError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message)
	}
}

export const badRequest = (message: string) => new AppError(400, message)
export const unauthorized = (message = 'Unauthorized') => new AppError(401, message)
export const forbidden = (message = 'You are not Authorized to perform this action') =>
	new AppError(403, message)
export const notFound = (what: string) => new AppError(404, `${what} not found`)
export const conflict = (message: string) => new AppError(409, message)
export const tooManyRequests = (retryAfterSeconds: number) =>
	new AppError(429, 'Too many requests, slow down', { 'retry-after': String(retryAfterSeconds) })

/** Fixed messages of the spec, used verbatim. */
export const Messages = {
	connectionDisabled: 'Enable User Connection Setting to use this api',
	notCmOrOwner: 'You are not CM/Owner of this community',
	notAuthorized: 'You are not Authorized to perform this action',
} as const
