// Cohort helpers for the cohort tests (through the HTTP API, failing loudly).
import type { TestUser } from '../support/community'
import { api } from '../support/http'

export async function newCohort(cm: TestUser, members: TestUser[], name = 'Cohort') {
	const reply = await api('POST', '/community/cohort', {
		token: cm.token,
		body: { name, uuids: members.map((m) => m.uuid) },
	})
	if (reply.status !== 200) throw new Error(`cohort: ${reply.status} ${JSON.stringify(reply.body)}`)
	return reply.body.data.cohort_data as { cohort_id: number; name: string; total_members: number }
}

export const attach = (
	cm: TestUser,
	chatroomId: string,
	cohortIds: number[],
	addExistingMembers = false,
) =>
	api('POST', '/chatroom/cohort', {
		token: cm.token,
		body: {
			chatroom_id: chatroomId,
			cohort_ids: cohortIds,
			add_existing_members: addExistingMembers,
		},
	})

export const setAccess = (cm: TestUser, chatroomId: string, cohortId: number, access: number) =>
	api('PUT', '/chatroom/cohort/access', {
		token: cm.token,
		body: { chatroom_id: chatroomId, cohort_id: cohortId, cohort_access: access },
	})

export const getRoom = (user: TestUser, chatroomId: string) =>
	api('GET', `/chatroom?chatroom_id=${chatroomId}`, { token: user.token })

export async function participantUuids(cm: TestUser, chatroomId: string): Promise<string[]> {
	const reply = await api('GET', `/chatroom/participants?chatroom_id=${chatroomId}&page_size=100`, {
		token: cm.token,
	})
	if (reply.status !== 200) throw new Error(`participants: ${JSON.stringify(reply.body)}`)
	return reply.body.data.participants.map((p: { uuid: string }) => p.uuid).sort()
}
