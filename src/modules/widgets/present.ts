// The widget shape of SPEC "Widget" (REST and webhook events use the same form).
import type { WidgetRow } from './repo'

export function presentWidget(widget: WidgetRow) {
	return {
		_id: widget.id,
		parent_entity_id: widget.parent_entity_id ?? '',
		parent_entity_type: widget.parent_entity_type ?? '',
		metadata: widget.metadata,
		meta: widget.meta ?? null,
		created_at: Number(widget.created_at),
		updated_at: Number(widget.updated_at),
	}
}
