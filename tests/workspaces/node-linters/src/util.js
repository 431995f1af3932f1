export function isEmpty(list) {
  return list.length == 0;
}
