// Post routes: POST /feed/post, PUT|DELETE /feed/post/:post_id, PUT /feed/post/:post_id/hide,
// GET /feed/user/:uuid/post.
// GET /feed/post/:post_id (the post with its comments) and everything under
// /feed/post/:post_id/... come from comments/ and reactions/, mounted beside this
// module in app.ts (children depend on posts/, never the reverse).
import { Elysia, t } from 'elysia'
import { ok } from '../../lib/envelope'
import { PageQuery } from '../../lib/paging'
import { authPlugin } from '../auth/plugin'
import { hidePost } from './hides'
import { CreatePostBody, DeletePostBody, EditPostBody, PostParams } from './model'
import { DeletedPostReply, PostListReply, PostReply } from './responses'
import { createPost, deletePost, editPost, listUserPosts } from './service'

export const postsModule = new Elysia({ name: 'posts' })
	.use(authPlugin)
	.post('/feed/post', async ({ session, body }) => ok(await createPost(session, body)), {
		auth: 'member',
		response: { 200: PostReply },
		body: CreatePostBody,
		detail: {
			summary: 'Create a post (text, heading, back-dated created_at, topics, attachments)',
			tags: ['posts'],
		},
	})
	.put(
		'/feed/post/:post_id',
		async ({ session, params, body }) => ok(await editPost(session, params.post_id, body)),
		{
			auth: 'member',
			response: { 200: PostReply },
			params: PostParams,
			body: EditPostBody,
			detail: { summary: 'Edit a post (author only); marks it is_edited', tags: ['posts'] },
		},
	)
	.delete(
		'/feed/post/:post_id',
		async ({ session, params, body }) =>
			ok(await deletePost(session, params.post_id, body?.delete_reason ?? body?.reason ?? null)),
		{
			auth: 'member',
			response: { 200: DeletedPostReply },
			params: PostParams,
			body: DeletePostBody,
			detail: {
				summary: 'Soft-delete a post (author or CM); it leaves every feed at once',
				tags: ['posts'],
			},
		},
	)
	.put(
		'/feed/post/:post_id/hide',
		async ({ session, params }) => ok(await hidePost(session, params.post_id)),
		{
			auth: 'member',
			params: PostParams,
			detail: {
				summary: 'Hide a post for the caller alone: it leaves their feeds and pages',
				tags: ['posts'],
			},
		},
	)
	.get(
		'/feed/user/:uuid/post',
		async ({ session, params, query }) =>
			ok(await listUserPosts(session, params.uuid, query.page, query.page_size)),
		{
			auth: 'member',
			response: { 200: PostListReply },
			params: t.Object({ uuid: t.String({ maxLength: 100 }) }),
			query: PageQuery,
			detail: { summary: "A user's posts, newest first", tags: ['posts'] },
		},
	)
