// Migration routes: POST /migration/import (owner/CM; an NDJSON body, streamed, run as
// a background job) and GET /migration/import/:job_id (its status, counts, rejects).
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { JobParams } from './model'
import { importJobStatus, startImportJob } from './service'

export const migrationModule = new Elysia({ name: 'migration' })
	.use(authPlugin)
	.post(
		'/migration/import',
		async ({ session, request, set }) => {
			const job = await startImportJob(
				session,
				request.headers.get('content-type') ?? undefined,
				request.body,
			)
			set.status = 202
			return ok(job)
		},
		{
			auth: 'cm',
			detail: {
				summary: 'Import NDJSON records (DESIGN §14) as a background job; 202 with its job_id',
				tags: ['migration'],
			},
		},
	)
	.get(
		'/migration/import/:job_id',
		async ({ session, params }) => ok(await importJobStatus(session, params.job_id)),
		{
			auth: 'cm',
			params: JobParams,
			detail: {
				summary: 'Status, counts and the first 1,000 rejects of an import job',
				tags: ['migration'],
			},
		},
	)
