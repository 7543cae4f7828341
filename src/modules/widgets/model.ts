// Request schemas of the widget routes. Bodies are lenient: unknown fields are ignored.
import { t } from 'elysia'

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
	page: t.Optional(t.Numeric({ minimum: 1, default: 1 })),
	page_size: t.Optional(t.Numeric({ minimum: 1, default: 10 })),
})

export const WidgetParams = t.Object({ widget_id: t.String({ maxLength: 100 }) })
