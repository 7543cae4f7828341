// A scope's pub/sub channel. Channels are server-wide, not per Redis database: two
// deployments (or test runs) on one Redis server with different databases would hear
// each other's scopes (room 1 of one is room 1 of the other). So the channel is the
// scope's key plus the database number when it is not 0 — after the hash tag, so the
// slot is the key's and one script still appends and publishes (a cluster has only 0).
import { config } from '../config'

const db = config.REDIS_CLUSTER_NODES ? 0 : Number(new URL(config.REDIS_URL).pathname.slice(1) || 0)

export const channelOf = (key: string): string => (db ? `${key}@${db}` : key)

export const keyOf = (channel: string): string =>
	db ? channel.slice(0, channel.lastIndexOf('@')) : channel
