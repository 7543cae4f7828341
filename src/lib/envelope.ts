// The envelope of every JSON answer: success with its data, or failure with the message
// a client shows (app.ts onError renders every 4xx/5xx through failure()).
export const ok = <T>(data: T) => ({ success: true as const, error_message: null, data })

export const failure = (message: string) => ({ success: false as const, error_message: message })
