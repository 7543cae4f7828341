// GET /helper/url?url=…: a page's Open Graph tags (feed-js decodeURL, chat-js decodeUrl),
// answered as `data.og_tags` {title, image, description, url}.
import { Elysia, t } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { previewUrl, urlParameter } from './service'

export const linkPreviewsModule = new Elysia({ name: 'link-previews' })
	.use(authPlugin)
	.get(
		'/helper/url',
		async ({ session, query, request }) =>
			ok(await previewUrl(session, urlParameter(request.url, query.url))),
		{
			auth: 'member',
			query: t.Object({ url: t.Optional(t.String({ maxLength: 2000 })) }),
			detail: {
				summary:
					'Open Graph tags of a page, fetched through the SSRF guard (3 s, 512 KB, text/html), cached a day',
				tags: ['posts'],
			},
		},
	)
