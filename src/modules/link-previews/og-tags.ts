// Open Graph tags out of a page's HTML with Bun's built-in HTMLRewriter (a streaming
// parser: no DOM is built). og:* first, then twitter:* and the page's own <title> and
// description; every value bounded; image and url made absolute against the page.

export interface OgTags {
	title: string
	description: string
	image: string
	url: string
}

const LIMITS = { title: 300, description: 1_000, image: 2_000, url: 2_000 }

export async function ogTagsOf(html: string, pageUrl: URL): Promise<OgTags> {
	const found: Record<string, string> = {}
	let title = ''
	const rewriter = new HTMLRewriter()
		.on('meta', {
			element(element) {
				const key = (element.getAttribute('property') ?? element.getAttribute('name') ?? '')
					.trim()
					.toLowerCase()
				const content = element.getAttribute('content')
				if (key && content !== null && found[key] === undefined)
					found[key] = decodeEntities(content)
			},
		})
		.on('title', {
			text(chunk) {
				if (title.length < LIMITS.title * 4) title += chunk.text
			},
		})
	await rewriter.transform(new Response(html)).text()
	const pick = (...names: string[]) =>
		names.map((name) => found[name]?.trim()).find((value) => value) ?? ''
	return {
		title: clip(pick('og:title', 'twitter:title') || decodeEntities(title.trim()), LIMITS.title),
		description: clip(
			pick('og:description', 'twitter:description', 'description'),
			LIMITS.description,
		),
		image: absolute(pick('og:image', 'og:image:url', 'twitter:image'), pageUrl, LIMITS.image),
		url: absolute(pick('og:url'), pageUrl, LIMITS.url) || clip(pageUrl.toString(), LIMITS.url),
	}
}

const clip = (value: string, max: number) => (value.length > max ? value.slice(0, max) : value)

function absolute(value: string, base: URL, max: number): string {
	if (!value) return ''
	try {
		const url = new URL(value, base)
		return url.protocol === 'http:' || url.protocol === 'https:' ? clip(url.toString(), max) : ''
	} catch {
		return ''
	}
}

/** The rewriter hands text and attribute values over raw, entities and all. */
function decodeEntities(text: string): string {
	return text
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;|&apos;/g, "'")
		.replace(/&amp;/g, '&')
}
