// croner schedules run by the worker. Each job is { name, pattern, run }.
export interface Job {
	name: string
	pattern: string
	run: () => Promise<void>
}

export const jobs: Job[] = []
