// The success envelope of every JSON answer (failures are rendered by app.ts onError).
export const ok = <T>(data: T) => ({ success: true as const, error_message: null, data })
