// Schemas of the connection routes.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { Int, Ok, Shape } from '../../lib/response'
import { UsersMap } from '../users/model'

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

const Status = t.Union([t.Literal('accepted'), t.Literal('pending'), t.Literal('removed')])

export const ConnectionStateReply = Ok(
	Shape({ status: Status, connection_type: t.Optional(ConnectionType) }),
)

export const ConnectionListReply = Ok(
	t.Object({
		connections: t.Array(
			Shape({
				user1_uuid: t.Optional(t.String()),
				user2_uuid: t.Optional(t.String()),
				request_by: t.Optional(t.String()),
				request_to: t.Optional(t.String()),
				connection_type: t.String(),
				status: t.Union([t.Literal('accepted'), t.Literal('pending')]),
				created_at: t.Number(),
				updated_at: t.Optional(t.Number()),
			}),
		),
		users: UsersMap,
		total_count: Int(),
		page: Int(),
		page_size: Int(),
	}),
)
