// Emoji, CJK and tabs before the fixed places: eslint counts UTF-16 code units.
const greeting = "こんにちは 🌍"; var name = '名前 🎉';
export function hello(who) {
	let 挨拶 = greeting + " " + who
	if (!!who) { return `${挨拶} 😀 ${name}`; }
	const emoji = "😀👍🏽"; let tail = emoji + '🎉'
	return who == null ? 'なし' : 挨拶;
}
