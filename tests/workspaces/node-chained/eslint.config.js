// Core rules only, so the fixture's findings stay stable across eslint releases.
export default [
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { console: "readonly", process: "readonly" },
    },
    rules: { eqeqeq: "error", "no-undef": "error", "no-console": "warn" },
  },
];
