export default function Public() {
  return <p>OPEN-PUBLIC-PAGE</p>;
}
