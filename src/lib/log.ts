// JSON line logs (pino), one logger for the process.
import pino from 'pino'
import { config } from '../config'

export const log = pino({
	level: config.NODE_ENV === 'test' ? (process.env.LOG_LEVEL ?? 'silent') : config.LOG_LEVEL,
	base: { pid: process.pid },
})
