// Post engagement routes: like toggle and likes list, save toggle and saved posts,
// pin toggle, seen (impressions and reach).
import { Elysia } from 'elysia'
import { ok } from '../../../lib/envelope'
import { PageQuery } from '../../../lib/paging'
import { authPlugin } from '../../auth/plugin'
import {
	LikeListReply,
	LikeReply,
	PinReply,
	PostListReply,
	SaveReply,
	SeenReply,
} from '../responses'
import { LikeBody, PostParams, SeenBody, UserParams } from './model'
import {
	listPostLikes,
	listSavedPosts,
	markSeen,
	togglePostLike,
	togglePostPin,
	togglePostSave,
} from './service'

export const reactionsModule = new Elysia({ name: 'reactions' })
	.use(authPlugin)
	.post(
		'/feed/post/seen',
		async ({ session, body }) => ok(await markSeen(session, body.post_ids)),
		{
			auth: 'member',
			response: { 200: SeenReply },
			body: SeenBody,
			detail: {
				summary: 'Record that the viewer saw these posts (impressions, reach)',
				tags: ['engagement'],
			},
		},
	)
	.put(
		'/feed/post/:post_id/like',
		async ({ session, params, body }) =>
			ok(await togglePostLike(session, params.post_id, body ?? {})),
		{
			auth: 'member',
			response: { 200: LikeReply },
			params: PostParams,
			body: LikeBody,
			detail: {
				summary: 'Like or unlike a post (toggle; {value} sets it; created_at back-dates it)',
				tags: ['engagement'],
			},
		},
	)
	.get(
		'/feed/post/:post_id/like',
		async ({ session, params, query }) =>
			ok(await listPostLikes(session, params.post_id, query.page, query.page_size)),
		{
			auth: 'member',
			response: { 200: LikeListReply },
			params: PostParams,
			query: PageQuery,
			detail: { summary: 'Users who liked a post', tags: ['engagement'] },
		},
	)
	.put(
		'/feed/post/:post_id/save',
		async ({ session, params }) => ok(await togglePostSave(session, params.post_id)),
		{
			auth: 'member',
			response: { 200: SaveReply },
			params: PostParams,
			detail: { summary: 'Save or unsave a post (toggle)', tags: ['engagement'] },
		},
	)
	.put(
		'/feed/post/:post_id/pin',
		async ({ session, params }) => ok(await togglePostPin(session, params.post_id)),
		{
			auth: 'member',
			response: { 200: PinReply },
			params: PostParams,
			detail: { summary: 'Pin or unpin a post (toggle; author or CM)', tags: ['engagement'] },
		},
	)
	.get(
		'/feed/user/:uuid/save',
		async ({ session, params, query }) =>
			ok(await listSavedPosts(session, params.uuid, query.page, query.page_size)),
		{
			auth: 'member',
			response: { 200: PostListReply },
			params: UserParams,
			query: PageQuery,
			detail: { summary: 'Posts saved by a user (the user or a CM)', tags: ['engagement'] },
		},
	)
