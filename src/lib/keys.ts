// Every Redis key of plaza is built here. Each carries a hash tag ({c<community>},
// {u<user>}, {p<post>}, ...) so the same code runs on a Redis Cluster: a command
// only ever touches keys of one tag.
export const keys = {
	// rate limits and OTPs
	rateLimit: (scope: 'ip' | 'user', id: string, window: number) => `rl:{${scope}${id}}:${window}`,
	otp: (phone: string) => `otp:{m${phone}}:code`,
	otpSends: (phone: string) => `otp:{m${phone}}:sends`,
}
