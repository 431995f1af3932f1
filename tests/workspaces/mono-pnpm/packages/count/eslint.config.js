// Core rules only, so the fixture's findings stay stable across eslint releases.
export default [
  {
    files: ["**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: { eqeqeq: "error", "no-unused-vars": "error", "prefer-const": "error" },
  },
];
