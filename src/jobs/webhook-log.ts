// Keeps the webhook attempt log bounded: attempts and finished deliveries older than
// 30 days are deleted nightly (the events themselves stay).

import { sql } from '../lib/db'
import { log } from '../lib/log'
import { pruneDeliveryLog } from '../webhooks/repo'

const keepDays = 30

export const webhookLogJob = {
	name: 'webhook-log-prune',
	pattern: '17 3 * * *',
	async run() {
		const removed = await pruneDeliveryLog(sql, Date.now() - keepDays * 86_400_000)
		if (removed > 0) log.info({ removed }, 'webhook attempt log pruned')
	},
}
