// Schemas of the migration routes (the record format is src/import/record-model.ts).
import { t } from 'elysia'

export const JobParams = t.Object({ job_id: t.String({ maxLength: 64 }) })
