// A real browser for the dashboard tests: Debian's chromium driven by playwright-core
// (never a downloaded browser). Each page is saved as a screenshot under
// test/artifacts/ so a run can be looked at afterwards.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { root } from './process'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const artifacts = join(root, 'test/artifacts')

export const hasChromium = () => existsSync(CHROMIUM)

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	})
}

export async function screenshot(page: Page, name: string): Promise<void> {
	mkdirSync(artifacts, { recursive: true })
	await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })
}
