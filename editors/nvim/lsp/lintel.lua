-- Default configuration of the lintel language server for `vim.lsp.config`/`vim.lsp.enable` (Neovim >= 0.11).
-- `require("lintel").setup()` layers the user's options on top of this; `vim.lsp.enable("lintel")` alone also works.

local project_markers = { 'go.mod', 'Cargo.toml', 'package.json', 'pyproject.toml', 'setup.py' }

---@type vim.lsp.Config
return {
  cmd = require('lintel').default_cmd(),
  filetypes = {
    'go',
    'gomod',
    'rust',
    'javascript',
    'javascriptreact',
    'typescript',
    'typescriptreact',
    'python',
  },
  -- Before 0.11.3 a flat list already meant "the nearest of these"; since then nesting says it.
  root_markers = vim.fn.has('nvim-0.11.3') == 1 and { project_markers, '.git' }
    or vim.list_extend(vim.list_extend({}, project_markers), { '.git' }),
}
