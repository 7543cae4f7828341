// The dependency rules of docs/architecture.md, checked on the source: no cycle
// between folders, the feed engine entered through timelines/index.ts only, the
// engine and infrastructure never reaching up into modules, no Elysia in services
// and repositories. A file directly in src/ (app.ts, config.ts, ...) is a node of its
// own; every other node is a folder.
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

const nodeOf = (file: string) => (dirname(file) === 'src' ? file : dirname(file))

/** Folder cycles as lists of nodes (Tarjan's strongly connected components of size > 1). */
function folderCycles(edges: Import[]): string[][] {
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

describe('dependency rules (docs/architecture.md)', () => {
	test('the checker sees the import graph and would report a cycle', () => {
		// Positive controls: imports were found, and a made-up ring is reported.
		expect(imports.length).toBeGreaterThan(100)
		const ring = [
			{ from: 'src/modules/a/service.ts', to: 'src/modules/b/repo.ts' },
			{ from: 'src/modules/b/service.ts', to: 'src/modules/a/repo.ts' },
		]
		expect(folderCycles(ring)).toEqual([['src/modules/a', 'src/modules/b']])
	})

	test('no two folders import each other, directly or around a ring', () => {
		expect(folderCycles(imports)).toEqual([])
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

	test('lib, timelines and webhooks never import a module', () => {
		const upward = imports.filter(
			(i) => /^src\/(lib|timelines|webhooks)\//.test(i.from) && i.to.startsWith('src/modules/'),
		)
		expect(upward).toEqual([])
	})

	test('services and repositories do not import Elysia', () => {
		const framework = files.filter(
			(file) =>
				/\/(service|repo)\.ts$/.test(file) &&
				/from 'elysia'/.test(readFileSync(join(root, file), 'utf8')),
		)
		expect(framework).toEqual([])
	})
})
