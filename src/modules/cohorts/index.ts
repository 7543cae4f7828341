// Cohort routes (DESIGN §8), CM/owner only except opening a share link: cohort CRUD
// and membership, cohorts attached to chatrooms with their access, the share link and
// GET /collabcard/:chatroom_id that a cohort member opens to join.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import {
	accessOfRoom,
	attachToRoom,
	changeAccess,
	detachFromRoom,
	openCollabcard,
} from '../chatrooms/cohort-rooms'
import { shareChatroom } from '../chatrooms/share'
import {
	AccessBody,
	AccessQuery,
	AttachBody,
	CohortBody,
	CohortMemberBody,
	CohortParams,
	CollabcardParams,
	CollabcardQuery,
	CreateCohortBody,
	DetachBody,
	PageQuery,
	ShareQuery,
	UpdateCohortBody,
} from './model'
import {
	createCohort,
	deleteCohort,
	getCohort,
	listCohorts,
	removeCohortMember,
	updateCohort,
} from './service'

const tags = ['cohorts']
const done = { success: true as const, error_message: null }

export const cohortsModule = new Elysia({ name: 'cohorts' })
	.use(authPlugin)
	.post('/community/cohort', async ({ session, body }) => ok(await createCohort(session, body)), {
		auth: 'cm',
		body: CreateCohortBody,
		detail: { summary: 'Create a cohort from uuids or member ids (unknown ones: 400)', tags },
	})
	.get(
		'/community/cohort',
		async ({ session, query }) => ok(await listCohorts(session, query.page, query.page_size)),
		{ auth: 'cm', query: PageQuery, detail: { summary: 'List cohorts', tags } },
	)
	.get(
		'/community/cohort/:cohort_id',
		async ({ session, params, query }) =>
			ok(await getCohort(session, params.cohort_id, query.page, query.page_size)),
		{
			auth: 'cm',
			params: CohortParams,
			query: PageQuery,
			detail: { summary: 'A cohort with a page of its members', tags },
		},
	)
	.put('/community/cohort', async ({ session, body }) => ok(await updateCohort(session, body)), {
		auth: 'cm',
		body: UpdateCohortBody,
		detail: { summary: 'Rename a cohort and/or replace its members', tags },
	})
	.delete(
		'/community/cohort',
		async ({ session, body }) => {
			await deleteCohort(session, body.cohort_id)
			return done
		},
		{ auth: 'cm', body: CohortBody, detail: { summary: 'Delete a cohort', tags } },
	)
	.delete(
		'/community/cohort/member',
		async ({ session, body }) => ok(await removeCohortMember(session, body)),
		{
			auth: 'cm',
			body: CohortMemberBody,
			detail: { summary: 'Remove a member from a cohort (and the seats only it gave)', tags },
		},
	)
	.post('/chatroom/cohort', async ({ session, body }) => ok(await attachToRoom(session, body)), {
		auth: 'cm',
		body: AttachBody,
		detail: {
			summary: 'Attach cohorts to a chatroom (access 2); add_existing_members seats them',
			tags,
		},
	})
	.delete(
		'/chatroom/cohort',
		async ({ session, body }) => ok(await detachFromRoom(session, body)),
		{
			auth: 'cm',
			body: DetachBody,
			detail: { summary: 'Detach a cohort; unseats members no other cohort covers', tags },
		},
	)
	.get(
		'/chatroom/cohort/access',
		async ({ session, query }) => ok(await accessOfRoom(session, query.chatroom_id)),
		{ auth: 'cm', query: AccessQuery, detail: { summary: 'Access of each attached cohort', tags } },
	)
	.put(
		'/chatroom/cohort/access',
		async ({ session, body }) => ok(await changeAccess(session, body)),
		{
			auth: 'cm',
			body: AccessBody,
			detail: { summary: 'Set a cohort’s access: 2 full, 1 read only, 0 none', tags },
		},
	)
	.get('/chatroom/share', async ({ session, query }) => ok(await shareChatroom(session, query)), {
		auth: 'member',
		query: ShareQuery,
		detail: {
			summary: "Links to a room (members); with cohort_id a CM gets the cohort's link too",
			tags,
		},
	})
	.get(
		'/collabcard/:chatroom_id',
		async ({ session, params, query }) =>
			ok(await openCollabcard(session, params.chatroom_id, query.cohort_id)),
		{
			auth: 'member',
			params: CollabcardParams,
			query: CollabcardQuery,
			detail: { summary: 'Open a share link: a member of the cohort joins the chatroom', tags },
		},
	)
