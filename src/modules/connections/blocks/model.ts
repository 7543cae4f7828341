// Schemas of the block routes; both spellings of the flag and the page size are accepted.
import { t } from 'elysia'

export const UserParams = t.Object({ uuid: t.String({ maxLength: 100 }) })

export const BlockBody = t.Object({
	uuid: t.String({ minLength: 1, maxLength: 100 }),
	shouldBlock: t.Optional(t.Boolean()),
	should_block: t.Optional(t.Boolean()),
})

export const BlockListQuery = t.Object({
	page: t.Optional(t.Integer({ minimum: 1, default: 1 })),
	pageSize: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
	page_size: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
})
