// Request schemas of feed-js's PollClient routes (its requests, snake-cased by the SDK).
import { t } from 'elysia'
import { pageFields } from '../../../lib/paging'
import { MAX_OPTION_TEXT } from '../../polls/model'

export const PollParams = t.Object({ poll_id: t.String({ maxLength: 64 }) })

export const AddOptionBody = t.Object({
	text: t.String({ maxLength: MAX_OPTION_TEXT }),
})

const OptionId = t.Union([t.String({ maxLength: 24 }), t.Integer({ minimum: 0 })])

export const VoteBody = t.Object({
	votes: t.Array(OptionId, { maxItems: 50 }),
})

export const VotersQuery = t.Object({
	// option ids: a comma list or a JSON array (feed-js sends the list joined by commas)
	votes: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Array(t.String({ maxLength: 64 }))])),
	...pageFields,
})
