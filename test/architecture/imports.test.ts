// The dependency rules of docs/architecture.md, checked on the source: no cycle
// between folders nor between modules, the feed engine entered through
// timelines/index.ts only, the engines and infrastructure never reaching up into
// modules, no Elysia in services and repositories, the visibility rule in one home.
// A file directly in src/ (app.ts, config.ts, ...) is a node of its own; every other
// node is a folder, or, for the module check, the module (src/modules/<name>).
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { Glob } from 'bun'

const root = resolve(import.meta.dir, '../..')
const files = [...new Glob('src/**/*.ts').scanSync({ cwd: root })].filter(
	(file) => !file.startsWith('src/modules/dashboard/web/'), // browser code, bundled apart
)

interface Import {
	from: string
	to: string
}

function resolveImport(file: string, spec: string): string | null {
	if (!spec.startsWith('.')) return null
	const base = join(dirname(file), spec)
	for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base])
		if (files.includes(candidate)) return candidate
	return null
}

const imports: Import[] = files.flatMap((file) => {
	const source = readFileSync(join(root, file), 'utf8')
	const specs = [...source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map(
		(m) => m[1] as string,
	)
	return specs.flatMap((spec) => {
		const to = resolveImport(file, spec)
		return to ? [{ from: file, to }] : []
	})
})

/** A folder's node: the file itself for files directly in src/. */
const folderOf = (file: string) => (dirname(file) === 'src' ? file : dirname(file))

/** A module's node: the top folder under src/modules (sub-features included); elsewhere the folder. */
const moduleOf = (file: string) => file.match(/^src\/modules\/[^/]+/)?.[0] ?? folderOf(file)

/** Cycles as lists of nodes (Tarjan's strongly connected components of size > 1). */
function cyclesOf(edges: Import[], nodeOf: (file: string) => string = folderOf): string[][] {
	const graph = new Map<string, Set<string>>()
	for (const { from, to } of edges) {
		const [a, b] = [nodeOf(from), nodeOf(to)]
		if (a === b) continue
		if (!graph.has(a)) graph.set(a, new Set())
		graph.get(a)?.add(b)
	}
	const index = new Map<string, number>()
	const low = new Map<string, number>()
	const stack: string[] = []
	const cycles: string[][] = []
	let counter = 0
	const visit = (node: string) => {
		index.set(node, counter)
		low.set(node, counter++)
		stack.push(node)
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next)
				low.set(node, Math.min(low.get(node) as number, low.get(next) as number))
			} else if (stack.includes(next))
				low.set(node, Math.min(low.get(node) as number, index.get(next) as number))
		}
		if (low.get(node) === index.get(node)) {
			const component: string[] = []
			let member: string | undefined
			do {
				member = stack.pop()
				if (member) component.push(member)
			} while (member && member !== node)
			if (component.length > 1) cycles.push(component.sort())
		}
	}
	for (const node of graph.keys()) if (!index.has(node)) visit(node)
	return cycles
}

/** Source files other than the rule's home that compare a visibility with a literal (code or SQL). */
const VISIBILITY_HOME = 'src/lib/visibility.ts'
const visibilityCopy =
	/visibility\s*(===|!==|==|!=|=|<>)\s*'(public|connections|private)'|visibility\s+(not\s+)?in\s*\(/
const visibilityCopies = (sources: Map<string, string>) =>
	[...sources]
		.filter(([file, text]) => file !== VISIBILITY_HOME && visibilityCopy.test(text))
		.map(([file]) => file)

const sources = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]))

describe('dependency rules (docs/architecture.md)', () => {
	test('the checker sees the import graph and would report a cycle', () => {
		// Positive controls: imports were found, and made-up rings are reported.
		expect(imports.length).toBeGreaterThan(100)
		expect(imports.some((i) => i.from.startsWith('src/push/'))).toBe(true)
		const ring = [
			{ from: 'src/modules/a/service.ts', to: 'src/modules/b/repo.ts' },
			{ from: 'src/modules/b/service.ts', to: 'src/modules/a/repo.ts' },
		]
		expect(cyclesOf(ring)).toEqual([['src/modules/a', 'src/modules/b']])
		// Through sub-folders: a ring of modules that no two folders form.
		const deep = [
			{ from: 'src/modules/a/feed/custom.ts', to: 'src/modules/b/sub/repo.ts' },
			{ from: 'src/modules/b/batch.ts', to: 'src/modules/a/service.ts' },
		]
		expect(cyclesOf(deep)).toEqual([])
		expect(cyclesOf(deep, moduleOf)).toEqual([['src/modules/a', 'src/modules/b']])
	})

	test('no two folders import each other, directly or around a ring', () => {
		expect(cyclesOf(imports)).toEqual([])
	})

	test('no two modules (top folders under src/modules, sub-folders included) form a ring', () => {
		expect(cyclesOf(imports, moduleOf)).toEqual([])
	})

	test('modules enter the feed engine through src/timelines/index.ts only', () => {
		const inside = imports.filter(
			(i) =>
				i.from.startsWith('src/modules/') &&
				i.to.startsWith('src/timelines/') &&
				i.to !== 'src/timelines/index.ts',
		)
		expect(inside).toEqual([])
	})

	test('lib, timelines, webhooks, push and live never import a module', () => {
		const upward = imports.filter(
			(i) =>
				/^src\/(lib|timelines|webhooks|push|live)\//.test(i.from) &&
				i.to.startsWith('src/modules/'),
		)
		expect(upward).toEqual([])
	})

	test('services and repositories do not import Elysia', () => {
		const framework = files.filter(
			(file) =>
				/\/(service|repo|[^/]+-repo)\.ts$/.test(file) &&
				/from 'elysia'/.test(sources.get(file) as string),
		)
		expect(framework).toEqual([])
		// Positive control: the pattern catches an Elysia import in a *-repo.ts file.
		expect(/\/(service|repo|[^/]+-repo)\.ts$/.test('src/timelines/connection-repo.ts')).toBe(true)
	})

	test('the visibility rule has one home (src/lib/visibility.ts)', () => {
		expect(visibilityCopies(sources)).toEqual([])
		// Positive controls: the home itself holds what the check looks for, and a copy in code or SQL is caught.
		expect(visibilityCopy.test(sources.get(VISIBILITY_HOME) as string)).toBe(true)
		const planted = new Map([
			['src/a.ts', "if (post.visibility === 'private') return"],
			['src/b-repo.ts', "where not is_deleted and p.visibility = 'public'"],
			['src/c-repo.ts', "and visibility in ('public', 'connections')"],
			['src/d.ts', 'if (former.visibility === post.visibility) return'],
		])
		expect(visibilityCopies(planted)).toEqual(['src/a.ts', 'src/b-repo.ts', 'src/c-repo.ts'])
	})
})
