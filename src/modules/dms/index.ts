// DM routes (DESIGN section 19, chat-js DirectMessage): create or find, requests,
// the per-day limit, block from a DM, the DM tab, status and feed, and the community's
// DM rules (CMs change them).
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import {
	CreateDmBody,
	DmBlockBody,
	DmFeedQuery,
	DmRequestBody,
	DmSettingsBody,
	DmStatusQuery,
	given,
	MemberQuery,
} from './model'
import { answerDmRequest, blockFromDm } from './requests'
import { createDm, dmLimit, dmRooms, dmStatus, dmTab } from './service'
import { dmSettings, putDmSettings } from './settings'

const tags = ['dms']

const refOf = (q: { member_id?: string | number; uuid?: string | number }) => ({
	member_id: given(q.member_id),
	uuid: given(q.uuid === undefined ? undefined : String(q.uuid)),
})

export const dmsModule = new Elysia({ name: 'dms' })
	.use(authPlugin)
	.post(
		'/chatroom/dm/create',
		async ({ session, body }) => ok(await createDm(session, refOf(body))),
		{
			auth: 'member',
			body: CreateDmBody,
			detail: { summary: 'The DM room with a member, found or created', tags },
		},
	)
	.post(
		'/chatroom/dm/request',
		async ({ session, body }) => ok(await answerDmRequest(session, body)),
		{
			auth: 'member',
			body: DmRequestBody,
			detail: { summary: 'Send (0), accept (1) or reject (2) a DM request', tags },
		},
	)
	.get(
		'/chatroom/dm/limit',
		async ({ session, query }) => ok(await dmLimit(session, refOf(query))),
		{
			auth: 'member',
			query: MemberQuery,
			detail: { summary: 'Whether the caller may start a new DM with the member today', tags },
		},
	)
	.post(
		'/chatroom/dm/block',
		async ({ session, body }) => ok(await blockFromDm(session, body.chatroom_id, body.status)),
		{
			auth: 'member',
			body: DmBlockBody,
			detail: { summary: 'Block (0) or unblock (1) the other member of a DM', tags },
		},
	)
	.get('/home/dm/meta', async ({ session }) => ok(await dmTab(session)), {
		auth: 'member',
		detail: { summary: 'Whether to show the DM tab, and unread DMs', tags },
	})
	.get(
		'/community/dm/status',
		async ({ session, query }) => ok(await dmStatus(session, refOf(query))),
		{
			auth: 'member',
			query: DmStatusQuery,
			detail: { summary: 'Whether the caller may DM (anyone, or the named member)', tags },
		},
	)
	.get('/community/dm/feed', async ({ session, query }) => ok(await dmRooms(session, query)), {
		auth: 'member',
		query: DmFeedQuery,
		detail: { summary: "The caller's DM rooms, most recently active first", tags },
	})
	.get('/community/dm/settings', async ({ session }) => ok(await dmSettings(session.communityId)), {
		auth: 'member',
		detail: { summary: "The community's DM rules", tags },
	})
	.put(
		'/community/dm/settings',
		async ({ session, body }) => ok(await putDmSettings(session.communityId, body)),
		{
			auth: 'cm-or-owner',
			body: DmSettingsBody,
			detail: { summary: "Change the community's DM rules (CM/owner)", tags },
		},
	)
