// Request schemas of the widget routes. Bodies are lenient: unknown fields are ignored.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

/** `meta.type` of a feed poll's widget (modules/polls feed-poll.ts): not editable through PUT /widget. */
export const POLL_WIDGET = 'poll'

// Checked as an object by the service: an object schema here makes Elysia coerce a
// string into {"0": ...} instead of rejecting it.
const Metadata = t.Unknown()

export const WidgetBody = t.Object({
	metadata: t.Optional(Metadata),
	meta: t.Optional(t.Unknown()),
	parent_entity_id: t.Optional(t.String({ maxLength: 100 })),
	parent_entity_type: t.Optional(t.String({ maxLength: 100 })),
})

export const WidgetQuery = t.Object({
	search_key: t.Optional(t.String({ maxLength: 200 })),
	search_value: t.Optional(t.String({ maxLength: 500 })),
	...pageFields,
})

export const WidgetParams = t.Object({ widget_id: t.String({ maxLength: 100 }) })
