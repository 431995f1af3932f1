package lintelgo

// Label greets under a cake; lintel's navigation fixture: names after é and 🍰 sit at other columns per encoding.
func Label(name string) string {
	return "é 🍰 " + Greeting(name)
}
