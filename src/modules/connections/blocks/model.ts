// Schemas of the block routes; both spellings of the flag and the page size are accepted.
import { t } from 'elysia'
import { pageFields } from '../../../lib/paging'

export const UserParams = t.Object({ uuid: t.String({ maxLength: 100 }) })

export const BlockBody = t.Object({
	uuid: t.String({ minLength: 1, maxLength: 100 }),
	shouldBlock: t.Optional(t.Boolean()),
	should_block: t.Optional(t.Boolean()),
})

export const BlockListQuery = t.Object({
	...pageFields,
	/** a client's camelCase twin of page_size */
	pageSize: pageFields.page_size,
})
