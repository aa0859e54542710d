// The chapter's three exercises (their own section, no lab).
export default { id: 'exercises', prefix: 'ex', strings: {}, state: [], build: () => ({ sync() {}, compute: () => null, paint() {} }) };
