// Topic routes: POST|GET /feed/topic, PUT /feed/topic/:topic_id, DELETE /feed/topic; a
// member's chosen topics: PATCH /feed/user/:uuid/topics, GET /feed/user/topics.
// Topic responses carry the payload at the top level and the same payload under `data`.

import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { parseIdList } from '../../lib/id-list'
import { authPlugin } from '../auth/plugin'
import { chooseTopics, chosenTopics } from './chosen'
import {
	ChosenTopicsBody,
	ChosenTopicsParams,
	ChosenTopicsQuery,
	CreateTopicsBody,
	DeletedTopicsReply,
	DeleteTopicsBody,
	EditTopicBody,
	ListTopicsQuery,
	TopicListReply,
	TopicParams,
	TopicReply,
	TopicsReply,
} from './model'
import { createTopics, deleteTopics, editTopic, listCommunityTopics } from './service'

const reply = <T extends object>(payload: T) => ({
	success: true as const,
	error_message: null,
	...payload,
	data: payload,
})

export const topicsModule = new Elysia({ name: 'topics' })
	.use(authPlugin)
	.post(
		'/feed/topic',
		async ({ session, body }) => reply(await createTopics(session, body.names, body.topics)),
		{
			auth: 'cm',
			response: { 200: TopicsReply },
			body: CreateTopicsBody,
			detail: { summary: 'Create topics from `names` and/or `topics`', tags: ['topics'] },
		},
	)
	.get(
		'/feed/topic',
		async ({ session, query }) => reply(await listCommunityTopics(session, query)),
		{
			auth: 'member',
			response: { 200: TopicListReply },
			query: ListTopicsQuery,
			detail: { summary: 'List topics with filters, order and paging', tags: ['topics'] },
		},
	)
	.put(
		'/feed/topic/:topic_id',
		async ({ session, params, body }) => reply(await editTopic(session, params.topic_id, body)),
		{
			auth: 'cm',
			response: { 200: TopicReply },
			params: TopicParams,
			body: EditTopicBody,
			detail: { summary: 'Edit, enable or disable a topic', tags: ['topics'] },
		},
	)
	.delete(
		'/feed/topic',
		async ({ session, body, query }) => {
			const raw = body?.topic_ids ?? query.topic_ids
			return reply(await deleteTopics(session, parseIdList('topic_ids', raw, { max: 500 })))
		},
		{
			auth: 'cm',
			response: { 200: DeletedTopicsReply },
			body: DeleteTopicsBody,
			detail: { summary: 'Delete topics (and their children)', tags: ['topics'] },
		},
	)
	.patch(
		'/feed/user/:uuid/topics',
		async ({ session, params, body }) => {
			await chooseTopics(session, params.uuid, body.topic_ids)
			return { success: true as const, error_message: null }
		},
		{
			auth: 'member',
			params: ChosenTopicsParams,
			body: ChosenTopicsBody,
			detail: {
				summary: 'Choose (true) or drop (false) topics for a member (themself, or a CM)',
				tags: ['topics'],
			},
		},
	)
	.get(
		'/feed/user/topics',
		async ({ session, query }) => ok(await chosenTopics(session, query.uuids)),
		{
			auth: 'member',
			query: ChosenTopicsQuery,
			detail: { summary: "Members' chosen topics (the caller's without uuids)", tags: ['topics'] },
		},
	)
