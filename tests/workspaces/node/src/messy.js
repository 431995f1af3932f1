// Valid code that prettier would reformat (lintel's fixture).
export const settings = {name:'lintel',   retries:3,
  verbose : true}

export function pick(  obj,key ){ return obj[key] }
