// Sign-in with the owner's (or a CM's) phone: a code is sent by GET /otp/generate and
// checked by GET /otp/verify, which answers the session.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { type Session, saveSession } from '../session'
import { Field, FormError, Submit, useForm } from '../ui'

export function SignIn() {
	const form = useForm(
		{ country_code: '91', mobile_no: '', otp: '' },
		{ number: 'mobile_no', code: 'otp' },
	)
	const [sent, setSent] = useState(false)
	const phone = () => ({ country_code: form.values.country_code, mobile_no: form.values.mobile_no })
	const sendCode = form.submit(async () => {
		await call('GET', '/otp/generate', { query: phone(), anonymous: true })
		setSent(true)
	})
	const verify = form.submit(async (values) => {
		const session = await call<Session>('GET', '/otp/verify', {
			query: { ...phone(), otp: values.otp },
			anonymous: true,
		})
		saveSession(session)
	})
	return html`<main id="main" class="sign-in" tabindex="-1">
		<h1>Sign in to the plaza dashboard</h1>
		<form onSubmit=${sent ? verify : sendCode} aria-label="Sign in" novalidate>
			<${FormError} form=${form} />
			<${Field} form=${form} name="country_code" label="Country code" inputMode="numeric" required />
			<${Field}
				form=${form}
				name="mobile_no"
				label="Mobile number"
				inputMode="numeric"
				autoComplete="tel-national"
				required
			/>
			${
				sent &&
				html`<${Field}
					form=${form}
					name="otp"
					label="Code"
					hint="The 6-digit code sent to this number"
					inputMode="numeric"
					autoComplete="one-time-code"
					required
				/>`
			}
			<${Submit} form=${form} label=${sent ? 'Sign in' : 'Send code'} />
			${
				sent &&
				html`<button type="button" class="link" onClick=${() => setSent(false)}>
					Use another number
				</button>`
			}
		</form>
	</main>`
}
