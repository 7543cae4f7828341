// Schemas of the connection routes.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

export const ConnectionType = t.Union([t.Literal('two_way'), t.Literal('one_way')], {
	error: 'connection_type must be two_way or one_way',
})
export type ConnectionType = typeof ConnectionType.static

export const MemberParams = t.Object({ member_uuid: t.String({ maxLength: 100 }) })

export const RequestBody = t.Object({
	connection_type: ConnectionType,
	connection_request_auto_accepted: t.Optional(t.Boolean()),
})

export const AnswerBody = t.Object({
	action: t.Union([t.Literal('accept'), t.Literal('reject')], {
		error: 'action must be accept or reject',
	}),
	connection_type: t.Optional(ConnectionType),
})

export const ListQuery = t.Object({
	status: t.Optional(
		t.Union([t.Literal('accepted'), t.Literal('pending')], {
			error: 'status must be accepted or pending',
		}),
	),
	...pageFields,
})
