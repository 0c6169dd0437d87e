export default function AdminHome() {
  return <p>PROTECTED-ADMIN-HOME</p>;
}
