// Connection routes: POST (request), PATCH (accept/reject) and GET (list) on
// /community/member/:member_uuid/connection.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { paging } from '../../lib/paging'
import { authPlugin } from '../auth/plugin'
import {
	AnswerBody,
	ConnectionListReply,
	ConnectionStateReply,
	ListQuery,
	MemberParams,
	RequestBody,
} from './model'
import { answerConnection, listConnections, requestConnection } from './service'

const tags = ['connections']

export const connectionsModule = new Elysia({ name: 'connections' })
	.use(authPlugin)
	.post(
		'/community/member/:member_uuid/connection',
		async ({ session, params, body }) => {
			const data = await requestConnection(
				session,
				params.member_uuid,
				body.connection_type,
				body.connection_request_auto_accepted ?? false,
			)
			return ok(data)
		},
		{
			auth: 'member',
			response: { 200: ConnectionStateReply },
			params: MemberParams,
			body: RequestBody,
			detail: { summary: 'Request (or auto-accept) a connection', tags },
		},
	)
	.patch(
		'/community/member/:member_uuid/connection',
		async ({ session, params, body }) => {
			const data = await answerConnection(session, params.member_uuid, body.action)
			return ok(data)
		},
		{
			auth: 'member',
			response: { 200: ConnectionStateReply },
			params: MemberParams,
			body: AnswerBody,
			detail: {
				summary: 'Accept or reject a request from the member, or remove the connection',
				tags,
			},
		},
	)
	.get(
		'/community/member/:member_uuid/connection',
		async ({ session, params, query }) => {
			const { page, pageSize } = paging(query.page, query.page_size)
			const data = await listConnections(
				session,
				params.member_uuid,
				query.status ?? 'accepted',
				page,
				pageSize,
			)
			return ok(data)
		},
		{
			auth: 'member',
			response: { 200: ConnectionListReply },
			params: MemberParams,
			query: ListQuery,
			detail: { summary: "The member's connections or pending requests", tags },
		},
	)
